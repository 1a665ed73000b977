// The default Kubernetes templates (templates/ at the top of the source
// tree), compiled into libfiber by embed_templates.py: fiber needs no
// installed data file to find them, and neither does a program running as
// the master inside a pod. templates/ is also installed to
// share/fiber/templates, for users to copy and edit (manifest_template.hpp
// reads the copies).
#pragma once

#include <cstddef>

namespace fiber::backend {

struct BuiltinTemplate {
  const char* name;  // the file name: "worker-pod.yaml"
  const char* text;
};

extern const BuiltinTemplate kBuiltinTemplates[];
extern const std::size_t kBuiltinTemplateCount;

}  // namespace fiber::backend
