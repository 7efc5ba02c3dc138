"""Utilities for programs that run as several processes."""

from typing import Any as Any

from jax._src.multihost_utils import P as P
from jax._src.multihost_utils import ProcessFailureError as ProcessFailureError
from jax._src.multihost_utils import assert_equal as assert_equal
from jax._src.multihost_utils import broadcast_one_to_all as broadcast_one_to_all
from jax._src.multihost_utils import (
    global_array_to_host_local_array as global_array_to_host_local_array)
from jax._src.multihost_utils import (
    global_array_to_host_local_array_impl as global_array_to_host_local_array_impl)
from jax._src.multihost_utils import (
    global_array_to_host_local_array_p as global_array_to_host_local_array_p)
from jax._src.multihost_utils import gtl_abstract_eval as gtl_abstract_eval
from jax._src.multihost_utils import (
    host_local_array_to_global_array as host_local_array_to_global_array)
from jax._src.multihost_utils import (
    host_local_array_to_global_array_impl as host_local_array_to_global_array_impl)
from jax._src.multihost_utils import (
    host_local_array_to_global_array_p as host_local_array_to_global_array_p)
from jax._src.multihost_utils import live_devices as live_devices
from jax._src.multihost_utils import ltg_abstract_eval as ltg_abstract_eval
from jax._src.multihost_utils import ltg_batcher as ltg_batcher
from jax._src.multihost_utils import process_allgather as process_allgather
from jax._src.multihost_utils import reached_preemption_sync_point as reached_preemption_sync_point
from jax._src.multihost_utils import safe_zip as safe_zip
from jax._src.multihost_utils import sync_global_devices as sync_global_devices
from jax._src.multihost_utils import tree_flatten as tree_flatten
from jax._src.multihost_utils import tree_unflatten as tree_unflatten
