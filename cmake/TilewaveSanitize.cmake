# TILEWAVE_SANITIZE: the sanitized build of scripts/test.sh --sanitize (build-sanitize/). Every
# target compiles with ASan + UBSan, halting on the first report; tests/CMakeLists.txt then
# defines only the `sanitized` suite: the parsers of outside data and their unit tests
# (layouts, the code-object loader, .npy, the compile cache, the emu CLI argument parsers,
# the MMA atom layouts). It stays small so CI can afford it beside the full suite.
option(TILEWAVE_SANITIZE "ASan + UBSan build of the sanitized test subset only" OFF)
if(TILEWAVE_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined -fno-sanitize-recover=all)
endif()
