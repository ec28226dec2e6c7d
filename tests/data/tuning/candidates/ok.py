def run(x, y):
    return x + y
