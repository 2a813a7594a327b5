#include "tpcheck/prove/goal.hpp"

#include <stdexcept>

#include "tpcheck/prove/proofs.hpp"

namespace tpcheck::prove {

z3::expr Goals::integer(const char* name) {
  inputs_.push_back(e_.ctx().int_const(name));
  return inputs_.back();
}

z3::expr Goals::flag(const char* name) {
  inputs_.push_back(e_.ctx().bool_const(name));
  return inputs_.back();
}

Goal& Goals::add(std::string claim, const z3::expr& domain, const z3::expr& holds, std::vector<ShownCall> calls) {
  goals_.push_back(Goal{std::move(claim), domain, holds, {}, {}, {}, {}, {}, {}, inputs_, std::move(calls)});
  return goals_.back();
}

Citation Goals::cite(std::string_view invariant) const {
  // Set while this thread builds a cited invariant's goals: a citation among
  // them would be a chain, and a chain may be a cycle that never ends.
  thread_local bool building_cited = false;
  const InvariantGoals* cited = goals_of(invariant);
  if (!cited) throw std::logic_error("prove: a goal cites " + std::string(invariant) + ", which has no goals");
  if (building_cited) {
    throw std::logic_error("prove: a cited invariant cites " + std::string(invariant) +
                           ": chains of citations (maybe cycles) are not supported");
  }
  building_cited = true;
  struct Reset {
    bool& flag;
    ~Reset() { flag = false; }
  } reset{building_cited};
  Citation out{std::string(invariant), e_.ctx().bool_val(true)};
  for (const Goal& goal : cited->goals(e_)) out.statement = out.statement && z3::implies(goal.domain, goal.holds);
  return out;
}

z3::expr Goals::fact(std::string claim, const z3::expr& domain, const z3::expr& holds, std::vector<ShownCall> calls) {
  add(std::move(claim), domain, holds, std::move(calls));
  return z3::implies(domain, holds);
}

z3::expr Law::at(const std::vector<z3::expr>& terms) const {
  z3::context& c = premise.ctx();
  z3::expr_vector from(c), to(c);
  for (std::size_t i = 0; i < vars.size(); ++i) {
    from.push_back(vars[i]);
    to.push_back(terms[i]);
  }
  return z3::implies(premise, conclusion).substitute(from, to);
}

Law quotient_law(z3::context& c) {
  const z3::expr x = c.int_const("law.x"), b = c.int_const("law.b"), y = c.int_const("law.y");
  return {"x // b == y where b >= 1, b * y <= x < b * y + b", {x, b, y}, b >= 1 && b * y <= x && x < b * y + b,
          floor_div(x, b) == y};
}

Law divides_law(z3::context& c) {
  const z3::expr x = c.int_const("law.x"), b = c.int_const("law.b");
  return {"b * (x // b) == x where b >= 1, x % b == 0", {x, b}, b >= 1 && floor_mod(x, b) == 0,
          b * floor_div(x, b) == x};
}

Law multiple_law(z3::context& c) {
  const z3::expr x = c.int_const("law.x"), P = c.int_const("law.P"), m = c.int_const("law.m"), H = c.int_const("law.H");
  return {"floor(x * H / P) == x * m where H == m * P, P >= 1", {x, P, m, H}, P >= 1 && H == m * P,
          floor_div(x * H, P) == x * m};
}

Law fraction_law(z3::context& c) {
  const z3::expr x = c.int_const("law.x"), H = c.int_const("law.H"), k = c.int_const("law.k"),
                 P = c.int_const("law.P"), y = c.int_const("law.y");
  return {"floor(x * H / P) == y where P == k * H, k * y <= x < k * y + k, H, k >= 1", {x, H, k, P, y},
          H >= 1 && k >= 1 && P == k * H && k * y <= x && x < k * y + k, floor_div(x * H, P) == y};
}

Law cancellation_law(z3::context& c) {
  const z3::expr a = c.int_const("law.a"), b = c.int_const("law.b"), k = c.int_const("law.c"),
                 x = c.int_const("law.x"), y = c.int_const("law.y"), h = c.int_const("law.h");
  return {"a == b * c where a * x == h, b * y == h, c * x == y, x >= 1", {a, b, k, x, y, h},
          x >= 1 && a * x == h && b * y == h && k * x == y, a == b * k};
}

Law quotient_definition_law(z3::context& c) {
  const z3::expr x = c.int_const("law.x"), b = c.int_const("law.b"), q = floor_div(x, b);
  return {"b * (x // b) <= x < b * (x // b) + b where b >= 1", {x, b}, b >= 1, b * q <= x && x < b * q + b};
}

void abstract_quotient(Goal& goal, const z3::expr& num, const z3::expr& den) {
  const z3::expr q = floor_div(num, den);
  goal.lemmas.push_back(den * q <= num && num < den * q + den);
  goal.abstracted.push_back(q);
}

void abstract_remainder(Goal& goal, const z3::expr& num, const z3::expr& den) {
  const z3::expr q = floor_div(num, den), m = floor_mod(num, den);
  goal.lemmas.push_back(num == den * q + m && 0 <= m && m < den);
  goal.abstracted.push_back(q);
  goal.abstracted.push_back(m);
}

Quotients quotients(z3::context& c, const std::vector<std::pair<z3::expr, z3::expr>>& num_den) {
  Quotients out{c.bool_val(true), {}};
  for (const auto& [num, den] : num_den) {
    const z3::expr q = floor_div(num, den);
    out.definitions = out.definitions && den * q <= num && num < den * q + den;
    out.terms.push_back(q);
  }
  return out;
}

z3::expr valid_rank(const z3::expr& r, const z3::expr& L, const z3::expr& R) {
  return L >= 1 && R >= 1 && r >= 0 && r < L;
}

z3::expr divisible_pair(const z3::expr& a, const z3::expr& b) {
  return a >= 1 && b >= 1 && floor_mod(max(a, b), min(a, b)) == 0;
}

z3::expr heads_shard(const z3::expr& T, const z3::expr& H) {
  return T >= 1 && H >= 1 && (floor_mod(T, H) == 0 || floor_mod(H, T) == 0);
}

z3::expr within(const z3::expr& x, const std::vector<z3::expr>& span) { return span[0] <= x && x < span[1]; }

}  // namespace tpcheck::prove
