// The peers' reference scorer, ../shared/bench/peers/conlleval.py, as an oracle for tests.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace seqflow::testutil {

// conlleval.py --json on a CoNLL file whose last two columns are gold and guess. Fails the
// calling test when python3 or the script fails; throws when it printed no JSON.
nlohmann::json ConllevalJson(const std::string& path);

}  // namespace seqflow::testutil
