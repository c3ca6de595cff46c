"""The world layer: scenarios (truth, models, noise), action sets and availability, assumption predicates, the
scenario catalogue, and the record of what a simulated run produced. Imports only ``model`` and ``utils``."""

from .actions import (
    ActionSet,
    AlternatingAvailability,
    AlwaysAvailable,
    Availability,
    SingleArm,
    TopK,
    masked_argmax,
)
from .catalogue import get_scenario, register_scenario, scenario_names
from .scenario import Scenario
from .scenario_files import FileFamily, ScenarioFileError, load_scenario, register_file_family, register_generator
from .trajectory import AlgorithmTrajectory, Trajectories

__all__ = ["ActionSet", "AlternatingAvailability", "AlwaysAvailable", "Availability", "SingleArm", "TopK",
           "masked_argmax", "get_scenario", "register_scenario", "scenario_names", "Scenario",
           "AlgorithmTrajectory", "Trajectories", "ScenarioFileError", "load_scenario", "register_generator",
           "FileFamily", "register_file_family"]
