__version__ = "2.3.0+rocm5.7"
cuda = None
hip = r"5.7\31921"
