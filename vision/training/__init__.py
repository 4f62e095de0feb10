"""Training the small networks the reader uses (offline, on a workstation).

Not imported by the appliance. Building the training crops needs only the
project's own dependencies; training needs PyTorch (``pip install torch onnx``),
which the Pi never needs: the trained networks ship as ONNX files that OpenCV's
dnn module runs. Only synthetic renders and ../shared/data go in, and of the
photo sets only the training half (``vision.datasets.held_out`` is False).
"""
