# forkjoin_install_pkgconfig(<name>): configures cmake/<name>.pc.in into the build tree and
# installs it as <libdir>/pkgconfig/<name>.pc. The file names its directories relative to
# where pkg-config finds it (${pcfiledir}), so it is right for the prefix given at install
# time (`cmake --install build --prefix DIR`, CPack's /usr) and after the tree is moved. A
# libdir or includedir given as an absolute path stays as given.
function(forkjoin_install_pkgconfig name)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
    set(FORKJOIN_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")  # the .pc's place does not follow the prefix
    set(FORKJOIN_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
  else()
    file(RELATIVE_PATH up "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")  # ../.. for lib/pkgconfig
    string(REGEX REPLACE "/$" "" up "${up}")
    set(FORKJOIN_PC_PREFIX "\${pcfiledir}/${up}")
    set(FORKJOIN_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
  endif()
  if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
    set(FORKJOIN_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
  else()
    set(FORKJOIN_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
  endif()
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${name}.pc.in ${PROJECT_BINARY_DIR}/${name}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${name}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endfunction()
