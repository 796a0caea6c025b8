// mlvm's version, from CMake's project(VERSION): the one source every tool prints.
#pragma once

namespace mlvm {

const char* version();  // "0.1.0"

}  // namespace mlvm
