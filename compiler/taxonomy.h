// The closed vocabularies of the signature format: failure types (from the
// project's taxonomy, never renamed), categories, severities, actions, roles.
#pragma once

#include <string_view>
#include <vector>

namespace faultline::taxonomy {

const std::vector<std::string_view> &types();
const std::vector<std::string_view> &categories();
const std::vector<std::string_view> &severities();   // index = fb::Severity
const std::vector<std::string_view> &actions();      // index = fb::Action
const std::vector<std::string_view> &roles();        // index = fb::Role
const std::vector<std::string_view> &job_facts();    // index = bit of fb::JobFact
const std::vector<std::string_view> &code_stacks();  // `code_examples[].stack`
const std::vector<std::string_view> &code_languages();
const std::vector<std::string_view> &questions();  // `answers:` keys, index = fb::Question

// Index of `word` in `list`, or -1.
int index_of(const std::vector<std::string_view> &list, std::string_view word);

}  // namespace faultline::taxonomy
