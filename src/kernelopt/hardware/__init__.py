"""GPU identity, spec sheets (from the gpu-wiki) and measured ceilings."""
