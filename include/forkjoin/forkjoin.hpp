// forkjoin.hpp: the umbrella header: everything a user of forkjoin needs.
#pragma once

#include "forkjoin/blocking.hpp"
#include "forkjoin/isolate.hpp"
#include "forkjoin/join.hpp"
#include "forkjoin/parallel_find.hpp"
#include "forkjoin/parallel_for.hpp"
#include "forkjoin/parallel_for_nd.hpp"
#include "forkjoin/parallel_reduce.hpp"
#include "forkjoin/parallel_scan.hpp"
#include "forkjoin/parallel_sort.hpp"
#include "forkjoin/per_worker.hpp"
#include "forkjoin/pool.hpp"
#include "forkjoin/schedule.hpp"
#include "forkjoin/task_group.hpp"
