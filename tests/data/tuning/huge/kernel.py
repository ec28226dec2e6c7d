def run(x):
    return x * 2.0
