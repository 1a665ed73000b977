// Header names and values as HTTP has them: names in any case, values
// padded with spaces. For the client (http/client) and the server
// (http/get_server, http/host_header).
#pragma once

#include <string>
#include <string_view>

namespace fiber::http {

/// text in lower case (ASCII).
std::string Lower(std::string_view text);
/// text without the white space around it.
std::string_view Trim(std::string_view text);

}  // namespace fiber::http
