// Why a program could not start inside its image, in words a user can act
// on. The engine's own error for a failed start is runc's
// ("exec: \"/app/train\": stat /app/train: no such file or directory"); the
// same ENOENT comes when the program is there but its dynamic loader is not,
// then as the container's only output ("exec /app/train: no such file or
// directory") once it has started. The container is still there to look
// into, so this asks the engine which file is missing. Used by
// ContainerBackend's Start and Poll.
#pragma once

#include <string>

#include "engine/engine_client.hpp"

namespace fiber::backend {

/// The dynamic loader (ELF PT_INTERP) the executable at path asks for, or ""
/// for a static executable or a file that is not ELF.
std::string ElfInterpreter(const std::string& path);

/// One line saying why container id of image could not run program, given
/// the engine's error for its start, or the container's output.
std::string DiagnoseStart(const engine::Client& engine, const std::string& id,
                          const std::string& image, const std::string& program,
                          const std::string& engine_error);

}  // namespace fiber::backend
