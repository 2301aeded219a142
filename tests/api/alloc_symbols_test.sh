#!/usr/bin/env bash
# Every allocation of the runtime goes through its Allocator (alloc.cpp), so
# that a caller's fl_allocator sees all of it and the allocation-failure test
# can fail every site: no other object of the static library may call the C
# allocator, operator new, or anything else that allocates behind its back.
set -euo pipefail
lib=$1
allocators='malloc|calloc|realloc|reallocarray|free|strdup|strndup|posix_memalign|aligned_alloc|memalign|valloc|_Znwm|_Znam|_ZnwmRKSt9nothrow_t|_ZnamRKSt9nothrow_t|_ZnwmSt11align_val_t|_ZnamSt11align_val_t|_ZdlPv|_ZdaPv|_ZdlPvm|_ZdaPvm|__cxa_allocate_exception|open_memstream|asprintf|vasprintf|getline|getdelim'
calls=$(nm -A -u "$lib" | awk -v re="^($allocators)\$" '$NF ~ re { n = split($1, p, ":"); print p[n-1], $NF }' | sort -u)
[ -n "$calls" ] || { echo "FAIL: found no allocator call at all in $lib (is nm reading it?)" >&2; exit 1; }
outside=$(grep -v '^alloc\.cpp\.o ' <<<"$calls" || true)
if [ -n "$outside" ]; then
  echo "FAIL: objects that allocate outside the Allocator:" >&2
  echo "$outside" >&2
  exit 1
fi
echo "only alloc.cpp.o allocates: $(tr '\n' ' ' <<<"$calls")"
