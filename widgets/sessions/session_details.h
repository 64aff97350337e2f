// The Session details tab in people's words: what was run (model, device, knobs with
// their units and PyTorch's names: "weight decay: default", "learning rate: 0.001"), the hardware
// ("NVIDIA H200, compute capability 9.0, 132 SMs, 150.1 GB"), the host, the library versions
// ("cuDNN 9.19.0"), the recording ("GPU clock offset 1796000181.528 s, error ±37 ns, drift −4 ns";
// dropped CUPTI records) and, last, every other metadata key as recorded. Used for opened sessions,
// imported traces and the session a live run just recorded.
#pragma once
#include <QString>
#include <map>
#include <string>

namespace ts::gui {

/// The details text of a session's metadata; `path` names the file (may be empty).
QString describe_session(const std::map<std::string, std::string>& meta, const QString& path);

/// "9.19.0" from cuDNN's 91900, "13.0" from CUDA's 13000, "13.1.0" from cuBLAS's 130100 ("" for
/// a value that is not a positive number).
QString version_text(const std::string& key, const std::string& value);

}  // namespace ts::gui
