#include "tpcheck/conform/binding_text.hpp"

#include <vector>

namespace tpcheck::conform {
namespace {

std::string code(const std::string& text) { return "`" + text + "`"; }

// "`a` or `b` or `c`".
std::string alternatives(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : " or ") + code(n);
  return out;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

}  // namespace

std::string model_call(const Binding& b) {
  std::vector<std::string> args;
  for (std::size_t k : b.model_from_case) args.push_back(k < b.params.size() ? b.params[k].name : "?");
  return b.model_op + "(" + joined(args) + ")";
}

std::string looked_for(const Binding& b) {
  const CallShape& c = b.call;
  if (!c.looked_for.empty()) return c.looked_for;
  if (!c.methods.empty() && !c.functions.empty() && c.instance_argument.empty()) {
    // Top-level in some versions, a static method in others.
    return "function " + alternatives(c.functions) + ", or method " + alternatives(c.methods) + " of " +
           alternatives(c.classes);
  }
  if (!c.methods.empty()) return "method " + alternatives(c.methods) + " of " + alternatives(c.classes);
  std::string out = "function " + alternatives(c.functions);
  if (!c.instance_argument.empty()) out += ", given an instance of " + alternatives(c.classes);
  return out;
}

std::string called_as(const Binding& b) {
  const CallShape& c = b.call;
  if (c.positional) return code("(" + joined(b.param_names()) + ")");
  std::vector<std::string> attributes, args;
  for (const Attribute& a : c.attributes) attributes.push_back(code(a.name + " = " + a.value));
  for (const CallArg& a : c.args) {
    args.push_back(code(a.name + "=" + a.value) + (a.optional ? " (if it has it" + (a.when.empty() ? "" : ", when " + a.when) + ")" : ""));
  }
  std::string out;
  if (!attributes.empty()) {
    out = (c.instance_argument.empty() ? "on an instance with " : code(c.instance_argument) + ": an instance with ") +
          joined(attributes);
  }
  if (!args.empty()) out += (out.empty() ? "" : "; ") + joined(args);
  if (!c.driver.empty()) {
    // A whole configuration per case: the driver makes each decode rank's or pair's calls.
    return out + (out.empty() ? "" : "; ") + "every call of each configuration over " + joined(b.param_names()) +
           " (a driver of the child makes them)";
  }
  return out + "; cases over " + joined(b.param_names());
}

std::string compared_with(const Binding& b) { return b.relation->compared_with(b); }

}  // namespace tpcheck::conform
