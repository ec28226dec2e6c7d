def run(x, y):
    while True:
        pass
