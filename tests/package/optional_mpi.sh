#!/bin/sh
# optional_mpi.sh SOURCE_DIR CMAKE GENERATOR MAKE_PROGRAM CXX_COMPILER: an MPI that is only
# half there never breaks a configure. Configures the project (examples on; no tests, no
# libforkjoin-omp: seconds, nothing built) with a fake Open MPI compiler wrapper and checks
# that the configure succeeds, says in one status line what is missing, and leaves
# examples/mpi_hybrid.cpp out (a placeholder test in its place, which ctest reports as skipped
# with the reason):
#  - headers_missing: the wrapper names include folders that do not exist (Open MPI's runtime
#    without libopenmpi-dev, what installing GROMACS from Debian leaves), where FindMPI's
#    try_compile used to stop the configure ("MPI::MPI_CXX includes non-existent path");
#  - include_path_missing: MPI_CXX_INCLUDE_PATH given, naming a folder that does not exist;
#  - link_fails: mpi.h is there but the library the wrapper links is not.
source_dir=$1 cmake=$2 generator=$3 make_program=$4 cxx=$5
fail() { echo "FAILED: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the fake wrapper: Open MPI's -showme interface, flags from FAKE_MPI_CFLAGS and FAKE_MPI_LIBS
mkdir -p "$tmp/bin" "$tmp/include"
cat >"$tmp/bin/mpicxx" <<EOF
#!/bin/sh
case "\$1" in
  -showme:compile | --showme:compile) echo "\$FAKE_MPI_CFLAGS" ;;
  -showme:link | --showme:link) echo "\$FAKE_MPI_LIBS" ;;
  -showme:incdirs | --showme:incdirs) echo "\$FAKE_MPI_CFLAGS" | sed 's/-I//g' ;;
  -showme:libdirs | --showme:libdirs) echo ;;
  -showme:version | --showme:version) echo "mpicxx: Open MPI 4.1.4 (Language: C++)" ;;
  -showme* | --showme*) echo "$cxx \$FAKE_MPI_CFLAGS \$FAKE_MPI_LIBS" ;;
  *) exec "$cxx" \$FAKE_MPI_CFLAGS "\$@" \$FAKE_MPI_LIBS ;;
esac
EOF
chmod +x "$tmp/bin/mpicxx"
cat >"$tmp/include/mpi.h" <<'EOF'
#ifdef __cplusplus
extern "C" {
#endif
int MPI_Init(int*, char***);
int MPI_Finalize(void);
#ifdef __cplusplus
}
#endif
EOF

# configure NAME EXPECTED [CMAKE-ARGS...]: the configure must succeed and print
# "-- forkjoin: examples/mpi_hybrid.cpp: skipped, EXPECTED (Debian: ...)"
configure() {
  name=$1 expected=$2
  shift 2
  "$cmake" -S "$source_dir" -B "$tmp/$name" -G "$generator" -DCMAKE_MAKE_PROGRAM="$make_program" \
    -DCMAKE_CXX_COMPILER="$cxx" -DFORKJOIN_BUILD_EXAMPLES=ON -DFORKJOIN_BUILD_TESTS=OFF \
    -DFORKJOIN_BUILD_OMP=OFF -DFORKJOIN_BUILD_BENCHMARKS=OFF -DFORKJOIN_BUILD_MODELS=OFF \
    -DMPI_CXX_COMPILER="$tmp/bin/mpicxx" "$@" >"$tmp/$name.log" 2>&1 ||
    fail "$name: the configure failed: $(cat "$tmp/$name.log")"
  grep -q "CMake Error" "$tmp/$name.log" && fail "$name: an error: $(cat "$tmp/$name.log")"
  line="-- forkjoin: examples/mpi_hybrid.cpp: skipped, $expected (Debian: apt-get install libopenmpi-dev openmpi-bin)"
  if [ "$(grep -c -e 'mpi_hybrid' "$tmp/$name.log")" -ne 1 ] || ! grep -qxF -e "$line" "$tmp/$name.log"; then
    fail "$name: expected the line '$line' alone: $(cat "$tmp/$name.log")"
  fi
  grep -qF 'add_test([=[example_mpi_hybrid]=]' "$tmp/$name/CTestTestfile.cmake" "$tmp/$name/examples/CTestTestfile.cmake" \
    2>/dev/null && fail "$name: example_mpi_hybrid registered"
  grep -qF "examples/mpi_hybrid.cpp: skipped, " "$tmp/$name/examples/CTestTestfile.cmake" ||
    fail "$name: no placeholder test says why examples/mpi_hybrid.cpp is skipped"
  # ctest runs the placeholder and lists it, with the reason, among the tests that did not run
  "${cmake%/*}/ctest" --test-dir "$tmp/$name" -R "mpi_hybrid" >"$tmp/$name.ctest" 2>&1 ||
    fail "$name: ctest failed: $(cat "$tmp/$name.ctest")"
  grep -qF -e "examples/mpi_hybrid.cpp: skipped, $expected (Debian: apt-get install libopenmpi-dev openmpi-bin) (Skipped)" \
    "$tmp/$name.ctest" || fail "$name: ctest does not report the placeholder as skipped: $(cat "$tmp/$name.ctest")"
  echo "$name: $expected"
}

FAKE_MPI_CFLAGS="-I$tmp/no-such-mpi/include -I$tmp/no-such-mpi/include/openmpi" FAKE_MPI_LIBS="-lmpi" \
  configure headers_missing \
  "Open MPI's headers are missing ($tmp/bin/mpicxx names $tmp/no-such-mpi/include $tmp/no-such-mpi/include/openmpi, which hold no mpi.h)"
FAKE_MPI_CFLAGS="-I$tmp/include" FAKE_MPI_LIBS="-lmpi" \
  configure include_path_missing "MPI_CXX_INCLUDE_PATH names $tmp/nowhere, which does not exist" \
  -DMPI_CXX_INCLUDE_PATH="$tmp/nowhere"
FAKE_MPI_CFLAGS="-I$tmp/include" FAKE_MPI_LIBS="-L$tmp/include -lforkjoin_no_such_mpi" \
  configure link_fails \
  "a tiny MPI program does not compile and link with $tmp/bin/mpicxx's flags (CMakeFiles/CMakeError.log)"
echo "optional_mpi: each configure succeeded and left examples/mpi_hybrid.cpp out with one line"
