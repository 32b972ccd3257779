// Diagnostics to stderr (stdout belongs to the CLI's results). Thread safe: one line per call.
#pragma once

#include <string_view>

namespace seqflow {

enum class LogLevel { kDebug = 0, kInfo, kWarning, kError };

void SetLogLevel(LogLevel level);
void Log(LogLevel level, std::string_view message);
inline void LogInfo(std::string_view m) { Log(LogLevel::kInfo, m); }
inline void LogWarning(std::string_view m) { Log(LogLevel::kWarning, m); }
inline void LogError(std::string_view m) { Log(LogLevel::kError, m); }

}  // namespace seqflow
