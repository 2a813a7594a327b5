// A RapidCheck generator of a domain's choices (tpcheck/domain.hpp): each an
// independent gen::inRange, so it follows RapidCheck's size ramp, and the
// whole vector shrinks like gen::tuple does, one choice at a time with the
// others kept. A rank drawn as "the last one" therefore stays the last one of
// its size while the size shrinks, and the values are computed from the
// choices afterwards (dom::decode), never drawn one after another.
#pragma once

#include <rapidcheck.h>

#include <vector>

#include "tpcheck/domain.hpp"

namespace tpcheck::rcprop {

class ChoicesShrinkable {
 public:
  explicit ChoicesShrinkable(std::vector<rc::Shrinkable<dom::Choice>> parts) : parts_(std::move(parts)) {}

  std::vector<dom::Choice> value() const {
    std::vector<dom::Choice> out;
    out.reserve(parts_.size());
    for (const auto& p : parts_) out.push_back(p.value());
    return out;
  }

  rc::Seq<rc::Shrinkable<std::vector<dom::Choice>>> shrinks() const {
    const auto parts = parts_;
    return rc::seq::mapcat(rc::seq::range<std::size_t>(0, parts.size()), [parts](std::size_t i) {
      return rc::seq::map(parts[i].shrinks(), [parts, i](rc::Shrinkable<dom::Choice>&& shrunk) {
        auto copy = parts;
        copy[i] = std::move(shrunk);
        return rc::makeShrinkable<ChoicesShrinkable>(std::move(copy));
      });
    });
  }

 private:
  std::vector<rc::Shrinkable<dom::Choice>> parts_;
};

// One choice per range (range 0 stands for [0, 2^64), drawn as [0, 2^64 - 1)).
inline rc::Gen<std::vector<dom::Choice>> choices(std::vector<dom::Choice> ranges) {
  return [ranges](const rc::Random& random, int size) {
    rc::Random r = random;
    std::vector<rc::Shrinkable<dom::Choice>> parts;
    parts.reserve(ranges.size());
    for (const dom::Choice range : ranges) {
      const dom::Choice end = range == 0 ? ~dom::Choice{0} : range;
      parts.push_back(rc::gen::inRange<dom::Choice>(0, end)(r.split(), size));
    }
    return rc::makeShrinkable<ChoicesShrinkable>(std::move(parts));
  };
}

}  // namespace tpcheck::rcprop
