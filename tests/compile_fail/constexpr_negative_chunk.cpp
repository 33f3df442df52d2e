// A negative chunk in a constant expression is a compile error (at run time it throws
// std::invalid_argument naming the value).
#include <forkjoin/schedule.hpp>

#ifdef FORKJOIN_COMPILE_FAIL
constexpr forkjoin::schedule s = forkjoin::schedule::dynamic(-5);
#else
constexpr forkjoin::schedule s = forkjoin::schedule::dynamic(5);
#endif
