import torch

# x (Y, X) float32 rows; p < 0 normalizes by the whole row, 0 <= p <= 1 by its first X * p columns (pRMSNorm). Rows
# must be dense: trident's output is ``torch.empty_like(input)`` (contiguous for a view with gaps) written through
# the input's strides
SHAPES = [{"Y": 6, "X": 96, "P": -1.0}, {"Y": 3, "X": 200, "P": 0.5}, {"Y": 9, "X": 33, "P": -1.0}]
ATOL = 1e-4
RTOL = 1e-4


def get_inputs(Y=6, X=96, P=-1.0, device="cpu"):
    g = torch.Generator().manual_seed(Y * 1009 + X * 7)
    x = torch.randn(Y, X, generator=g)
    weight = torch.randn(X, generator=g)
    bias = torch.randn(X, generator=g)
    return [x.to(device), weight.to(device), bias.to(device), float(P)]


def reference(x, weight, bias, p):
    X = x.shape[1]
    partial = X if p < 0.0 or p > 1.0 else X * p
    kept = torch.arange(X, device=x.device) < partial
    xd = x.double()
    rms = ((xd * xd / partial) * kept).sum(1).sqrt()
    out = xd / (rms[:, None] + 1e-8) * weight.double() + bias.double()
    return out.float(), rms.float()
