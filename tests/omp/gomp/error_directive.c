/* error_directive: `omp error at(execution)` prints libgomp's words (which programs and
   libgomp's own tests match): warnings go on, severity(fatal) stops the program with status 1.
   The test compares stderr byte for byte with libgomp's text. */
#include <stdio.h>

int main(void) {
  const char* msg = "from a variable";
#pragma omp error at(execution) severity(warning)
#pragma omp error at(execution) severity(warning) message("literal")
#pragma omp error at(execution) severity(warning) message(msg)
#pragma omp parallel num_threads(2)
  {
#pragma omp masked
    {
#pragma omp error at(execution) severity(warning) message("in a region")
    }
  }
  printf("before fatal\n");
  fflush(stdout);
#pragma omp error at(execution) severity(fatal) message("the end")
  printf("not reached\n");
  return 0;
}
