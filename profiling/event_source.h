// EventSource: where a view's events come from. A live Profiler, an opened session file and (later)
// an imported PyTorch trace all end as an EventStore plus metadata, read through this interface.
#pragma once
#include <memory>
#include <string>

#include "profiling/event_store.h"

namespace ts::prof {

class EventSource {
 public:
  virtual ~EventSource() = default;
  /// The events; readers may read while a live source keeps appending (EventStore's contract).
  virtual const EventStore& store() const = 0;
  /// The same store, shared, for viewers that keep it after the source is gone.
  virtual std::shared_ptr<const EventStore> shared_store() const = 0;
  /// "live", "session file", "PyTorch trace".
  virtual std::string kind() const = 0;
  /// Where the events come from (a path, or "live run").
  virtual std::string origin() const = 0;
};

/// An opened session file (loaded whole). Throws SessionError (see session_file.h).
std::unique_ptr<EventSource> open_session(const std::string& path);

}  // namespace ts::prof
