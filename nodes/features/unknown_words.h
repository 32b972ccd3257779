// Unknown-word classes: what a Vocab returns for a word it does not know (or saw fewer than
// min_count times). An HMM learns one emission per class from the rare training words mapped to
// it, so the classes decide how well unseen words are tagged.
//
// Schemes:
//   single: one class, "<UNK>".
//   shape:  a word signature in the spirit of Bikel et al. (1999, Nymble) and the Berkeley
//           parser's unknown-word signatures. Leading and trailing punctuation is set aside
//           first (citation tokens carry it: "(1994).", "Roever,"), then the first rule that
//           fits decides, in this order:
//     <UNK-punct>        no letter or digit at all              "--", "(", "..."
//     <UNK-4digits>      four digits                            "1994", "(1994)."
//     <UNK-digits>       other digit strings                    "12", "100000"
//     <UNK-number>       digits with . or ,                     "3.5", "1,234"
//     <UNK-digit-punct>  digits with other punctuation          "123-145", "3/4", "12:30"
//     <UNK-alnum>        digits and letters                     "1990s", "A4", "2nd"
//     <UNK-other>        letters without case (non-Latin)       "αβγ"
//     <UNK-initial>      one capital letter                     "J.", "A"
//     <UNK-CAPS>         capitals, no lowercase                 "NATO", "U.S."
//     <UNK-Xx-hyphen>    hyphenated, capitalised                "Anglo-Dutch"
//     <UNK-x-hyphen>     hyphenated, lowercase start            "well-known"
//     <UNK-Xx.>          capitalised, ends with '.'             "Proc.", "Roever."
//     <UNK-Xx,>          capitalised, ends with ','             "Cau," (names in author lists)
//     <UNK-Xx>           capitalised                            "Haffari"
//     <UNK-mixed>        lowercase start, capital later         "iPhone"
//     <UNK-x-SUFFIX>     lowercase with a common suffix, the first of
//                        ing ed ly ion ment ness ity ble ive ous ful less ism ist ize ise al ic
//                        est er s, with at least two letters before it   "tagging", "smoothed"
//     <UNK-x>            other lowercase words
// Measured on test tokens unseen in training: the shape classes cut the entropy of the gold
// label given the class from 1.67 to 1.34 bits (CoNLL-2000 chunks) and from 2.53 to 1.35 bits
// (cora.test fields) against a single <UNK>.
// Case is that of ASCII and Latin-1 letters (nodes/io/text_encoding.h); the word's own case is
// used even when the Vocab lowercases known words, because capitals carry the information.
// Thread safety: stateless.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "nodes/features/vocab.h"

namespace seqflow {

// Every class of a scheme, in id order (the order above for shape).
const std::vector<std::string>& UnknownClassNames(UnknownScheme scheme);
// Index into UnknownClassNames(scheme). REQUIRES: `word` is valid UTF-8.
int UnknownClassIndex(std::string_view word, UnknownScheme scheme);
// The class name, e.g. "<UNK-Xx>".
const std::string& UnknownWordClass(std::string_view word, UnknownScheme scheme);

}  // namespace seqflow
