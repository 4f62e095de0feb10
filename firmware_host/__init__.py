"""Serial dice towers: the host side of the tower protocol (pyserial).

pyserial is imported inside the port adapter, never at module import.
"""
