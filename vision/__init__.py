"""Reading thrown dice with a camera (OpenCV).

Camera back-ends (OpenCV VideoCapture, picamera2) are imported inside their
adapters' constructors, never here, so this package imports on any laptop.
"""
