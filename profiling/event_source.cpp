// The session-file EventSource (see event_source.h).
#include "profiling/event_source.h"

#include "profiling/session/session_file.h"

namespace ts::prof {
namespace {

class SessionFileSource final : public EventSource {
 public:
  explicit SessionFileSource(std::string path) : path_(std::move(path)) { read_session(path_, *store_); }
  const EventStore& store() const override { return *store_; }
  std::shared_ptr<const EventStore> shared_store() const override { return store_; }
  std::string kind() const override { return "session file"; }
  std::string origin() const override { return path_; }

 private:
  std::string path_;
  std::shared_ptr<EventStore> store_ = std::make_shared<EventStore>();
};

}  // namespace

std::unique_ptr<EventSource> open_session(const std::string& path) {
  return std::make_unique<SessionFileSource>(path);
}

}  // namespace ts::prof
