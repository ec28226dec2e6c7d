import ctypes


def run(x, y):
    ctypes.string_at(0)
    return x + y
