"""upmc's version, for the shared libraries' names and the package files.
It agrees with UPMC_VERSION_MAJOR/MINOR in <upmc/upmc.h> (the installed
consumer checks it against pkg-config)."""

UPMC_VERSION = "0.1.0"

# While the major version is 0 a minor version may change the ABI (the
# inline readers compile in the layout of struct upmc_set), so the soname
# carries both: libupmc.so.0.1.
UPMC_SOVERSION = "0.1"
