"""Starting a training run from a network that was shipped as ONNX alone.

The exported file keeps each convolution with its batch norm folded in (weight
W, bias b).  Loaded into the training network's Conv (no bias) → BatchNorm pair,
the batch norm is set so that, on the data at hand, it gives back what the
folded layer gave: its scale and shift are the standard deviation and mean of
the convolution's output (plus b).  Training then starts where the shipped
network stood instead of from random weights.  Linear layers are copied; a
last layer with more classes than the file keeps the file's rows for the old
classes and starts the new ones small.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np


def onnx_weights(path: Path) -> tuple[list[tuple[Any, Any]], list[tuple[Any, Any]]]:
    """(convolutions, linear layers) of an ONNX file in graph order, as (weight, bias) arrays."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(path))
    init = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    convs: list[tuple[Any, Any]] = []
    linears: list[tuple[Any, Any]] = []
    for node in model.graph.node:
        if node.op_type in ("Conv", "Gemm"):
            weight = init[node.input[1]]
            bias = init[node.input[2]] if len(node.input) > 2 else np.zeros(weight.shape[0])
            (convs if node.op_type == "Conv" else linears).append((weight, bias))
    return convs, linears


def load_into(net: Any, path: Path, sample: Any, *, convs_only: bool = False) -> None:
    """Put the weights of ONNX file ``path`` into ``net`` (a torch module of the same
    layers, in the same order); ``sample`` is a batch of real inputs for the batch norms.
    ``convs_only``: the file was trained on another crop size, so its linear layers do
    not fit; the convolutions are taken and the linear layers keep their fresh weights."""
    import torch
    import torch.nn as nn

    convs, linears = onnx_weights(path)
    conv_layers = [m for m in net.modules() if isinstance(m, nn.Conv2d)]
    norms = [m for m in net.modules() if isinstance(m, nn.BatchNorm2d)]
    lin_layers = [m for m in net.modules() if isinstance(m, nn.Linear)]
    if convs_only:
        linears, lin_layers = [], []
    if len(conv_layers) != len(convs) or len(lin_layers) != len(linears):
        raise SystemExit(f"{path} does not have the layers of this network")
    if len(norms) != len(conv_layers):
        raise SystemExit("every convolution must be followed by a batch norm")
    outputs: dict[int, Any] = {}

    def keep(index: int) -> Any:
        def hook(_module: Any, _inputs: Any, output: Any) -> None:
            outputs[index] = output.detach()

        return hook

    with torch.no_grad():
        for conv, (weight, _) in zip(conv_layers, convs, strict=True):
            conv.weight.copy_(torch.from_numpy(np.array(weight)))
        for layer, (weight, bias) in zip(lin_layers, linears, strict=True):
            rows = min(layer.weight.shape[0], weight.shape[0])
            layer.weight[:rows] = torch.from_numpy(np.array(weight[:rows]))
            layer.bias[:rows] = torch.from_numpy(np.array(bias[:rows]))
            if rows < layer.weight.shape[0]:  # new classes: small, and a little unlikely
                layer.weight[rows:] *= 0.1
                layer.bias[rows:] = float(bias.min())
        # one layer at a time: each batch norm must see the inputs the earlier ones now give
        for k, (conv, norm) in enumerate(zip(conv_layers, norms, strict=True)):
            handle = conv.register_forward_hook(keep(k))
            net.eval()
            net(sample)
            handle.remove()
            out = outputs[k]
            mean = out.mean(dim=(0, 2, 3))
            var = out.var(dim=(0, 2, 3), unbiased=False)
            bias = torch.from_numpy(np.array(convs[k][1])).float()
            norm.running_mean.copy_(mean)
            norm.running_var.copy_(var)
            norm.weight.copy_(torch.sqrt(var + norm.eps))
            norm.bias.copy_(mean + bias)
