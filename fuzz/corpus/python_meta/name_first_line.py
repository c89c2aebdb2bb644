_release_version
_release_version: str = '0.4.30'
_version = """multi
line\
"""
