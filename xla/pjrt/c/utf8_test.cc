// ToValidUtf8 keeps well-formed text byte for byte and escapes every byte
// that is not part of a well-formed sequence.
#include "xla/pjrt/c/utf8.h"

#include "xla/hlo/testing/check.h"

namespace xla {
namespace {

TEST(KeepsValidText) {
  EXPECT_EQ(ToValidUtf8("plain ascii"), std::string("plain ascii"));
  EXPECT_EQ(ToValidUtf8("r\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"),
            std::string("r\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"));
  EXPECT_EQ(ToValidUtf8(std::string("a\0b", 3)), std::string("a\0b", 3));
}

TEST(EscapesBrokenSequences) {
  // A two-byte character cut after its lead byte (a message quoting one byte of "ré").
  EXPECT_EQ(ToValidUtf8("name r\xC3"), std::string("name r\\xC3"));
  EXPECT_EQ(ToValidUtf8("\xC3 = 1"), std::string("\\xC3 = 1"));
  // A lone continuation byte, an overlong '/', a surrogate, and past U+10FFFF.
  EXPECT_EQ(ToValidUtf8("\x80"), std::string("\\x80"));
  EXPECT_EQ(ToValidUtf8("\xC0\xAF"), std::string("\\xC0\\xAF"));
  EXPECT_EQ(ToValidUtf8("\xED\xA0\x80"), std::string("\\xED\\xA0\\x80"));
  EXPECT_EQ(ToValidUtf8("\xF4\x90\x80\x80"), std::string("\\xF4\\x90\\x80\\x80"));
  // A three-byte character missing its last byte, then valid text.
  EXPECT_EQ(ToValidUtf8("\xE2\x82x"), std::string("\\xE2\\x82x"));
}

// Error text written into a C callback's buffer: valid UTF-8, never cut inside a character.
TEST(CopiesErrorTextWithoutSplittingCharacters) {
  char out[5];
  CopyErrorText("abc", out, sizeof(out));
  EXPECT_EQ(std::string(out), std::string("abc"));
  CopyErrorText("abc\xC3\xA9", out, sizeof(out));  // "abcé": the 'é' does not fit whole
  EXPECT_EQ(std::string(out), std::string("abc"));
  CopyErrorText("a\xFF", out, sizeof(out));  // a stray byte is escaped, then cut
  EXPECT_EQ(std::string(out), std::string("a\\xF"));
  CopyErrorText("ignored", out, 0);  // no room: nothing written
  CopyErrorText("x", nullptr, 4);
}

}  // namespace
}  // namespace xla

TEST_MAIN()
