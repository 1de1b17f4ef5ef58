#include "sim/strategy/strategy_spec.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "sim/core/input_error.h"

namespace scalecast {

namespace {

// hybrid:M keeps a worker inside one node; no node has more GPUs than this. The same bound
// guards tp and pp degrees and interleaving against absurd input.
constexpr int kMaxGpusPerWorker = 4096;
constexpr int kMaxMicrobatch = 1 << 20;

const std::vector<std::string> kTensorPipelineKeys = {"tp",        "pp", "zero",    "mb",
                                                      "schedule",  "recompute", "sp", "overlap", "order", "accum"};

const char* kGrammar =
    "dp, hybrid:M, or tp:T,pp:P[,zero:0-3][,mb:B][,schedule:1f1b|gpipe|interleaved:V]"
    "[,recompute:auto|none|selective|full][,sp:on|off][,overlap:all|none|tp+dp+p2p][,order:tp-pp-dp]"
    "[,accum:fused|add]";

[[noreturn]] void reject(const std::string& text, const std::string& why) {
  throw RequestError("strategy", "'" + text + "': " + why + " (expected " + kGrammar + ")");
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> items;
  for (size_t start = 0;;) {
    const size_t at = text.find(separator, start);
    items.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) return items;
    start = at + 1;
  }
}

std::optional<int> parse_count(const std::string& digits, int min, int max) {
  if (digits.empty() || digits.size() > 8 ||
      !std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c); }))
    return std::nullopt;
  const int value = std::stoi(digits);
  if (value < min || value > max) return std::nullopt;
  return value;
}

int count_option(const std::string& text, const std::string& key, const std::string& value, int min, int max) {
  if (auto count = parse_count(value, min, max)) return *count;
  reject(text, key + " must be an integer from " + std::to_string(min) + " to " + std::to_string(max) + ", got '" +
                   value + "'");
}

void set_schedule(TensorPipelineSpec& spec, const std::string& text, const std::string& value) {
  if (value == "1f1b") return void(spec.schedule = PipelineSchedule::one_f_one_b);
  if (value == "gpipe") return void(spec.schedule = PipelineSchedule::gpipe);
  if (value.rfind("interleaved:", 0) == 0) {
    spec.schedule = PipelineSchedule::interleaved;
    spec.virtual_stages = count_option(text, "interleaved", value.substr(12), 2, kMaxGpusPerWorker);
    return;
  }
  reject(text, "schedule must be 1f1b, gpipe or interleaved:V, got '" + value + "'");
}

void set_recompute(TensorPipelineSpec& spec, const std::string& text, const std::string& value) {
  static const std::vector<std::pair<std::string, Recompute>> words = {
      {"auto", Recompute::automatic}, {"none", Recompute::none}, {"selective", Recompute::selective}, {"full", Recompute::full}};
  for (const auto& [word, recompute] : words)
    if (value == word) return void(spec.recompute = recompute);
  reject(text, "recompute must be auto, none, selective or full, got '" + value + "'");
}

void set_overlap(TensorPipelineSpec& spec, const std::string& text, const std::string& value) {
  if (value == "all") return void(spec.overlap = Overlap{});
  spec.overlap = Overlap{false, false, false};
  if (value == "none") return;
  for (const std::string& part : split(value, '+')) {
    bool& flag = part == "tp" ? spec.overlap.tensor : part == "dp" ? spec.overlap.data : spec.overlap.pipeline;
    if ((part != "tp" && part != "dp" && part != "p2p") || flag)
      reject(text, "overlap must be all, none, or some of tp, dp and p2p joined by '+', got '" + value + "'");
    flag = true;
  }
}

void set_order(TensorPipelineSpec& spec, const std::string& text, const std::string& value) {
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    const size_t dash = value.find('-', start);
    parts.push_back(value.substr(start, dash == std::string::npos ? std::string::npos : dash - start));
    if (dash == std::string::npos) break;
    start = dash + 1;
  }
  std::vector<std::string> sorted = parts;
  std::sort(sorted.begin(), sorted.end());
  if (sorted != std::vector<std::string>{"dp", "pp", "tp"})
    reject(text, "order must list tp, pp and dp once each, innermost first (tp-pp-dp), got '" + value + "'");
  spec.order = value;
}

void set_option(TensorPipelineSpec& spec, const std::string& text, const std::string& key, const std::string& value) {
  if (key == "tp") spec.tensor = count_option(text, key, value, 1, kMaxGpusPerWorker);
  else if (key == "pp") spec.pipeline = count_option(text, key, value, 1, kMaxGpusPerWorker);
  else if (key == "zero") spec.zero_stage = count_option(text, key, value, 0, 3);
  else if (key == "mb") spec.microbatch = count_option(text, key, value, 1, kMaxMicrobatch);
  else if (key == "schedule") set_schedule(spec, text, value);
  else if (key == "recompute") set_recompute(spec, text, value);
  else if (key == "order") set_order(spec, text, value);
  else if (key == "overlap") set_overlap(spec, text, value);
  else if (key == "sp") {
    if (value != "on" && value != "off") reject(text, "sp must be on or off, got '" + value + "'");
    spec.sequence_parallel = value == "on";
  } else if (key == "accum") {
    if (value != "fused" && value != "add") reject(text, "accum must be fused or add, got '" + value + "'");
    spec.fused_gradient_accumulation = value == "fused";
  }
}

std::string key_of(const std::string& item) { return item.substr(0, item.find(':')); }

bool is_tensor_pipeline_item(const std::string& item) {
  return std::find(kTensorPipelineKeys.begin(), kTensorPipelineKeys.end(), key_of(item)) != kTensorPipelineKeys.end();
}

// One tp/pp strategy from its "key:value" items.
StrategySpec parse_tensor_pipeline(const std::vector<std::string>& items, const std::string& text) {
  TensorPipelineSpec spec;
  std::set<std::string> given;
  for (const std::string& item : items) {
    const size_t colon = item.find(':');
    if (!is_tensor_pipeline_item(item) || colon == std::string::npos) reject(text, "unknown part '" + item + "'");
    const std::string key = item.substr(0, colon);
    if (!given.insert(key).second) reject(text, key + " is given twice");
    set_option(spec, text, key, item.substr(colon + 1));
  }
  if (!given.count("tp") && !given.count("pp") && !given.count("zero"))
    reject(text, "a tensor/pipeline strategy needs tp, pp or zero");
  if (spec.schedule == PipelineSchedule::interleaved && spec.pipeline < 2)
    reject(text, "an interleaved schedule needs a pipeline (pp >= 2)");
  if (spec.sequence_parallel && spec.tensor < 2) reject(text, "sequence parallelism splits over tp; it needs tp >= 2");
  const long long model_gpus = static_cast<long long>(spec.tensor) * spec.pipeline;
  if (model_gpus > (1 << 22)) reject(text, "tp x pp is larger than any cluster");
  return tensor_pipeline_strategy(spec);
}

}  // namespace

const char* to_string(PipelineSchedule schedule) {
  switch (schedule) {
    case PipelineSchedule::one_f_one_b: return "1f1b";
    case PipelineSchedule::gpipe: return "gpipe";
    case PipelineSchedule::interleaved: return "interleaved";
  }
  return "?";
}

std::string to_string(const Overlap& overlap) {
  if (overlap == Overlap{}) return "all";
  std::string parts;
  if (overlap.tensor) parts += "+tp";
  if (overlap.data) parts += "+dp";
  if (overlap.pipeline) parts += "+p2p";
  return parts.empty() ? "none" : parts.substr(1);
}

const char* to_string(Recompute recompute) {
  switch (recompute) {
    case Recompute::automatic: return "auto";
    case Recompute::none: return "none";
    case Recompute::selective: return "selective";
    case Recompute::full: return "full";
  }
  return "?";
}

StrategySpec tensor_pipeline_strategy(const TensorPipelineSpec& spec) {
  StrategySpec strategy;
  strategy.gpus_per_worker = spec.tensor * spec.pipeline;
  strategy.tp_pp = spec;
  return strategy;
}

std::string StrategySpec::name() const {
  if (!tp_pp) return is_data_parallel() ? "dp" : "hybrid:" + std::to_string(gpus_per_worker);
  const TensorPipelineSpec& s = *tp_pp;
  std::string name = "tp:" + std::to_string(s.tensor) + ",pp:" + std::to_string(s.pipeline);
  if (s.zero_stage > 0) name += ",zero:" + std::to_string(s.zero_stage);
  if (s.microbatch != 1) name += ",mb:" + std::to_string(s.microbatch);
  if (s.schedule == PipelineSchedule::gpipe) name += ",schedule:gpipe";
  if (s.schedule == PipelineSchedule::interleaved) name += ",schedule:interleaved:" + std::to_string(s.virtual_stages);
  if (s.recompute != Recompute::automatic) name += std::string(",recompute:") + to_string(s.recompute);
  if (s.sequence_parallel) name += ",sp:on";
  if (s.overlap != Overlap{}) name += ",overlap:" + to_string(s.overlap);
  if (s.order != TensorPipelineSpec{}.order) name += ",order:" + s.order;
  if (!s.fused_gradient_accumulation) name += ",accum:add";
  return name;
}

const char* strategy_grammar() { return kGrammar; }

StrategySpec parse_strategy_spec(const std::string& text) {
  if (text == "dp") return {};
  if (text.rfind("hybrid:", 0) == 0) {
    if (auto m = parse_count(text.substr(7), 1, kMaxGpusPerWorker)) return {*m, std::nullopt};
    reject(text, "hybrid:M needs 1 <= M <= " + std::to_string(kMaxGpusPerWorker));
  }
  const std::vector<std::string> items = split(text, ',');
  if (!is_tensor_pipeline_item(items.front())) reject(text, "unknown strategy");
  return parse_tensor_pipeline(items, text);
}

std::vector<StrategySpec> parse_strategy_list(const std::string& text) {
  std::vector<std::string> entries;  // one strategy's text each
  std::set<std::string> keys_in_entry;
  bool open_entry = false;  // the last entry is a tp/pp strategy still taking options
  for (const std::string& group : split(text, ';')) {
    open_entry = false;
    for (const std::string& item : split(group, ',')) {
      const bool option = is_tensor_pipeline_item(item);
      if (option && open_entry && keys_in_entry.insert(key_of(item)).second) {
        entries.back() += "," + item;
        continue;
      }
      entries.push_back(item);
      open_entry = option;
      keys_in_entry = {key_of(item)};
    }
  }
  std::vector<StrategySpec> strategies;
  for (const std::string& entry : entries) {
    const StrategySpec strategy = parse_strategy_spec(entry);
    if (std::find(strategies.begin(), strategies.end(), strategy) != strategies.end())
      throw RequestError("strategy", "'" + entry + "' is listed twice");
    strategies.push_back(strategy);
  }
  return strategies;
}

}  // namespace scalecast
