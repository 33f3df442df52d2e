// perturb.hpp: the compiled side of FORKJOIN_PERTURB (declared in detail/config.hpp).
#pragma once
#include "forkjoin/detail/config.hpp"
