#include "sim/engine/link_occupancy.h"

#include <algorithm>

namespace scalecast {

std::vector<LinkOccupancy::Id> LinkOccupancy::holders(const Links& links) const {
  std::vector<Id> ids;
  if (held_.empty()) return ids;
  for (const auto* link : links) {
    auto it = holders_of_link_.find(link);
    if (it == holders_of_link_.end()) continue;
    ids.insert(ids.end(), it->second.begin(), it->second.end());
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

bool LinkOccupancy::any_held(const Links& links) const {
  if (held_.empty()) return false;
  for (const auto* link : links)
    if (holders_of_link_.count(link)) return true;
  return false;
}

LinkOccupancy::Id LinkOccupancy::add(const Links& links) {
  const Id id = next_id_++;
  for (const auto* link : links) holders_of_link_[link].push_back(id);
  held_.emplace(id, links);
  return id;
}

void LinkOccupancy::remove(Id id) {
  auto it = held_.find(id);
  if (it == held_.end()) return;
  for (const auto* link : it->second) {
    auto& ids = holders_of_link_[link];
    ids.erase(std::find(ids.begin(), ids.end(), id));
    if (ids.empty()) holders_of_link_.erase(link);
  }
  held_.erase(it);
}

}  // namespace scalecast
