/* openacc_call: a program that calls an OpenACC routine, which libgomp provides and
   libforkjoin-omp does not (OpenACC is not served): the launcher must name it before the
   program runs, and refuse to run it with --strict. */
#include <stdio.h>

int acc_get_num_devices(int device_type); /* <openacc.h>; acc_device_host is 2 */

int main(void) {
  printf("ran: %d host devices\n", acc_get_num_devices(2));
  return 0;
}
