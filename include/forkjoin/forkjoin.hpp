// forkjoin.hpp: the umbrella header: everything a user of forkjoin needs.
#pragma once

#include "forkjoin/join.hpp"
#include "forkjoin/parallel_for.hpp"
#include "forkjoin/parallel_reduce.hpp"
#include "forkjoin/parallel_sort.hpp"
#include "forkjoin/pool.hpp"
#include "forkjoin/schedule.hpp"
#include "forkjoin/task_group.hpp"
