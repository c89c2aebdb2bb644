
import datetime
import os

_version = "0.4.30"

# The following line is overwritten by build scripts in distributions &
# releases. Do not modify this manually, or jax/jaxlib build will fail.
_release_version: str = '0.4.30'

def _write_version(fname: str) -> None:
  old_version_string = "_release_version: str = '0.4.30'"
  new_version_string = f"_release_version: str = {release_version!r}"

__version__ = _get_version_string()
_minimum_jaxlib_version = '0.4.30'
