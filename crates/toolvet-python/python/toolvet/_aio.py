"""asyncio support: ``Host.acheck`` runs the check on a worker thread.

Checks release the GIL, so the worker threads of this pool vet calls in
parallel while the event loop goes on.
"""

from __future__ import annotations

import asyncio
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            workers = int(os.environ.get("TOOLVET_ASYNC_WORKERS", "0")) or min(32, (os.cpu_count() or 1) * 4)
            _pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="toolvet-check")
        return _pool


async def run_blocking(pending: Callable[[], Any]) -> Any:
    """Run ``pending()`` on toolvet's worker pool and return its result."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(_executor(), pending)
