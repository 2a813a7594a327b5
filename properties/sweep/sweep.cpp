// The exhaustive sweep: each entry's domain enumerated (dom::for_each_case's
// walker), split into work items by the values of the domain's first block.
// Each thread keeps its own tallies, merged at the end, so the hot loop
// shares nothing.
#include "sweep.hpp"

#include <algorithm>
#include <atomic>
#include <limits>
#include <memory>
#include <thread>

namespace tpcheck::sweep {
namespace {

using I = std::int64_t;

// One value (or pair) of an entry's first block: everything below it is one item.
struct Item {
  std::size_t entry;   // index into the entries swept
  std::size_t domain;  // index into the entry's domains
  std::array<I, 2> first{};
  I weight = 0;  // the largest size below it: larger first, so slow items do not trail
};

struct Accumulator {
  inv::Tally tally;
  std::optional<Counterexample> smallest;
};

std::vector<I> counterexample_key(const dom::Domain& d, const I* values) {
  I largest = 0;
  for (int i = 0; i < d.width(); ++i) {
    if (d.is_size(i)) largest = std::max(largest, values[i] < 0 ? -values[i] : values[i]);
  }
  std::vector<I> key = {largest};
  key.insert(key.end(), values, values + d.width());
  return key;
}

std::string describe_case(const inv::Entry& e, std::size_t domain, const I* values) {
  const dom::Domain& d = e.domains[domain];
  std::string out = std::string(e.name) + "(";
  if (e.domains.size() > 1) out += std::string(e.domain_names[domain]) + ": ";
  for (int i = 0; i < d.width(); ++i) {
    out += (i ? ", " : "") + std::string(d.name(i)) + "=" + dom::value_text(d, i, BigInt(values[i]));
  }
  return out + ")";
}

// Runs one entry on every case a walk visits.
struct Visitor {
  const inv::Entry* entry = nullptr;
  std::size_t domain = 0;
  Accumulator* into = nullptr;

  void operator()(const I* values) {
    inv::KindMask kinds = 0;
    const inv::Verdict verdict = check(values, &kinds);
    into->tally.add(verdict, kinds);
    if (!verdict.is_violated()) return;
    std::vector<I> key = counterexample_key(entry->domains[domain], values);
    if (into->smallest && into->smallest->key <= key) return;
    into->smallest = Counterexample{std::move(key), describe_case(*entry, domain, values), verdict.message()};
  }

  // In int16 where the entry has a check for it and the values fit (the
  // differential's narrow model), in int64 otherwise.
  inv::Verdict check(const I* values, inv::KindMask* kinds) const {
    if (entry->check_int16) {
      const int width = entry->domains[domain].width();
      std::array<std::int16_t, dom::kMaxValues> narrow{};
      bool fits = true;
      for (int i = 0; i < width && fits; ++i) {
        fits = values[i] >= std::numeric_limits<std::int16_t>::min() && values[i] <= std::numeric_limits<std::int16_t>::max();
        narrow[static_cast<std::size_t>(i)] = static_cast<std::int16_t>(values[i]);
      }
      if (fits) return entry->check_int16(domain, narrow.data(), kinds);
    }
    return entry->check(domain, values, kinds);
  }
};

class Worker {
 public:
  Worker(const std::vector<const inv::Entry*>& entries, const dom::Bound& bound)
      : entries_(entries), bound_(bound), results_(entries.size()), walkers_(entries.size()) {
    for (std::size_t e = 0; e < entries.size(); ++e) {
      for (const dom::Domain& d : entries[e]->domains) walkers_[e].push_back(std::make_unique<dom::Walker<Visitor>>(d, bound));
    }
  }

  void run(const Item& item) {
    const inv::Entry& entry = *entries_[item.entry];
    const dom::Block& first = entry.domains[item.domain].blocks().front();
    std::array<I, dom::kMaxValues> values{};
    for (int k = 0; k < first.width(); ++k) values[static_cast<std::size_t>(k)] = item.first[static_cast<std::size_t>(k)];
    Visitor visit{&entry, item.domain, &results_[item.entry]};
    walkers_[item.entry][item.domain]->walk(values.data(), 1, visit);
  }

  std::vector<Accumulator>& results() { return results_; }

 private:
  const std::vector<const inv::Entry*>& entries_;
  dom::Bound bound_;
  std::vector<Accumulator> results_;
  std::vector<std::vector<std::unique_ptr<dom::Walker<Visitor>>>> walkers_;
};

std::vector<Item> items_of(const std::vector<const inv::Entry*>& entries, const dom::Bound& bound) {
  std::vector<Item> items;
  std::vector<I> firsts;
  for (std::size_t e = 0; e < entries.size(); ++e) {
    for (std::size_t k = 0; k < entries[e]->domains.size(); ++k) {
      const dom::Domain& domain = entries[e]->domains[k];
      const dom::Block& first = domain.blocks().front();
      firsts.clear();
      dom::block_values(first, domain.capped(bound), nullptr, firsts);
      const auto width = static_cast<std::size_t>(first.width());
      for (std::size_t i = 0; i + width <= firsts.size(); i += width) {
        Item item{e, k};
        I weight = 0;
        for (std::size_t j = 0; j < width; ++j) {
          item.first[j] = firsts[i + j];
          weight = std::max(weight, firsts[i + j]);
        }
        item.weight = weight;
        items.push_back(item);
      }
    }
  }
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.weight > b.weight; });
  return items;
}

}  // namespace

std::vector<const inv::Entry*> swept_entries() {
  std::vector<const inv::Entry*> out;
  for (const inv::Entry& e : inv::registry()) {
    if (!e.exclusion(inv::Engine::Sweep)) out.push_back(&e);
  }
  return out;
}

std::uint64_t Result::non_vacuous() const {
  std::uint64_t n = 0;
  for (const EntryResult& r : entries) n += r.tally.non_vacuous();
  return n;
}

std::uint64_t Result::violations() const {
  std::uint64_t n = 0;
  for (const EntryResult& r : entries) n += r.tally.violated;
  return n;
}

bool Result::failed() const {
  return std::any_of(entries.begin(), entries.end(), [](const EntryResult& r) { return r.failed(); });
}

Result run(const Options& options) {
  const std::vector<const inv::Entry*> entries = options.only.empty() ? swept_entries() : options.only;
  const std::vector<Item> items = items_of(entries, options.bound);
  std::atomic<std::size_t> next{0};
  std::vector<std::unique_ptr<Worker>> workers;
  for (int t = 0; t < std::max(1, options.threads); ++t) workers.push_back(std::make_unique<Worker>(entries, options.bound));
  std::vector<std::thread> threads;
  for (auto& worker : workers) {
    threads.emplace_back([&, w = worker.get()] {
      for (std::size_t i = next++; i < items.size(); i = next++) w->run(items[i]);
    });
  }
  for (std::thread& t : threads) t.join();

  Result result;
  for (std::size_t e = 0; e < entries.size(); ++e) {
    EntryResult r;
    r.entry = entries[e];
    for (auto& worker : workers) {
      const Accumulator& a = worker->results()[e];
      r.tally.merge(a.tally);
      if (a.smallest && (!r.smallest || a.smallest->key < r.smallest->key)) r.smallest = a.smallest;
    }
    r.gaps = inv::coverage_gaps(*r.entry, r.tally);
    result.entries.push_back(std::move(r));
  }
  return result;
}

}  // namespace tpcheck::sweep
