"""The C API version of pjrt_c_api.h, for build rules that stamp it into plugin
manifests. Must equal PJRT_API_MAJOR / PJRT_API_MINOR; every plugin checks at
initialisation that its manifest and its compiled extension agree."""

PJRT_API_MAJOR = 0
PJRT_API_MINOR = 114
