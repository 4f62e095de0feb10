"""dicebridge: a physical-dice bridge and hardware roller appliance."""

__version__ = "0.1.0"
