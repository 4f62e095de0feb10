"""GPIO (gpiozero) and attached displays (luma), behind small interfaces.

Vendor libraries are imported inside the real adapters' constructors so that
every package imports on a laptop; tests use gpiozero's MockFactory and luma's
dummy device.
"""
