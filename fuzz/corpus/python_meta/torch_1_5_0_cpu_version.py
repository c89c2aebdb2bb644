__version__ = '1.5.0+cpu'
debug = False
cuda = None
git_version = '4ff3872a2099993bf7e8c588f7182f3df777205b'
hip = None
