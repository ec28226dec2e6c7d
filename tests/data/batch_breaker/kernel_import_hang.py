"""A kernel whose import never ends (a build that hangs): cut at the compile limit."""

import time

from torch import nn

time.sleep(3600)


class ModelNew(nn.Module):
    pass
