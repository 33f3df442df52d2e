// internal.hpp: the whole core of libforkjoin-omp in one include, for a file that uses most
// of it. Each part has a header of its own; a file that uses a few includes those.
#pragma once

#include "affinity.hpp"
#include "common.hpp"
#include "icv.hpp"
#include "places.hpp"
#include "task.hpp"
#include "team.hpp"
#include "trace.hpp"
#include "wait.hpp"
#include "work_share.hpp"
