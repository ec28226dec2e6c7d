def reference(x):
    return x
