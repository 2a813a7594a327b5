// What a written test (tpcheck conform --write-tests) expects of a call: the
// model's outcome, as a Python literal, or the exception the model raises.
// Each relation that written tests can check says, for a case, the calls it
// makes (items: one call, or each pair of a configuration) and the model's
// outcome of each (Relation::test_items).
#pragma once

#include <string>
#include <vector>

#include "tpcheck/pyint.hpp"

namespace tpcheck::conform {

struct Expected {
  enum class Form {
    Value,    // the call returns `literal` (as the test's observed value compares it)
    Raises,   // the call raises exception_class with exactly `message`
    Refused,  // the call raises (the model refuses; the engine names no error)
  };
  Form form = Form::Value;
  std::string literal;
  std::string exception_class;
  std::string message;
};

// One call of a case: its coordinates inside the case (Relation::test_coords:
// the pair or rank of a configuration; none for a case that is one call).
struct WrittenItem {
  std::vector<BigInt> coords;
  Expected expected;
};

// An outcome in tpcheck eval's notation ("Class: message", or a value's repr,
// which is a Python literal) as a written test expects it.
Expected expected_outcome(const std::string& notation);
Expected expected_value(std::string literal);
Expected expected_refusal();

// A Python string literal of `text`, as repr() writes it.
std::string python_string(const std::string& text);
// An integer, a bool (flag) or a tuple of integers as Python writes them.
std::string python_int(const BigInt& v);
std::string python_tuple(const std::vector<std::string>& items);
std::string python_list(const std::vector<std::string>& items);

// How an engine's project writes its tests, for the files --write-tests
// writes (each engine's in its folder; adapters get the core's pytest ones).
struct TestConventions {
  enum class Framework { Pytest, Unittest };
  Framework framework = Framework::Pytest;
  std::vector<std::string> header = {};  // the first lines of every file (a license header)
  // The project's registration of a test file with its CI (imported and
  // called after the imports): with the engine installed (--import-style
  // module), and where it may not be (source: guarded).
  std::vector<std::string> registration_module = {};
  std::vector<std::string> registration_source = {};
  std::string test_mark = {};  // pytest: a decorator of every test function
  // The module each name lives in, in a checkout of the engine, for a file
  // given outside its package (--import-style module): a definition the
  // tests import, or a stand-in a call names.
  std::vector<std::pair<std::string, std::string>> modules = {};
};

// The adapters' conventions: pytest, nothing else.
const TestConventions& adapter_test_conventions();

}  // namespace tpcheck::conform
