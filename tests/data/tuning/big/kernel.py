def run(x, y):
    return x * 2.0 + y
