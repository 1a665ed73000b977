// .dockerignore patterns, by Docker's documented rules: what fiber run
// --build leaves out of the build context it sends the engine.
#include <doctest/doctest.h>

#include <string>

#include "image/dockerignore.hpp"
#include "support/temp_dir.hpp"

using fiber::image::Dockerignore;

namespace {

Dockerignore Parsed(const std::string& text) {
  Dockerignore ignore;
  std::string err;
  REQUIRE_MESSAGE(ignore.Parse(text, &err), err);
  return ignore;
}

std::string ParseError(const std::string& text) {
  Dockerignore ignore;
  std::string err;
  CHECK_FALSE(ignore.Parse(text, &err));
  return err;
}

}  // namespace

TEST_CASE("a listed name leaves out that file or directory and everything under it") {
  const Dockerignore ignore = Parsed(".env\nsecrets/\n");
  CHECK(ignore.Excludes(".env"));
  CHECK(ignore.Excludes("secrets"));
  CHECK(ignore.Excludes("secrets/key.pem"));
  CHECK(ignore.Excludes("secrets/deep/er/key"));
  CHECK_FALSE(ignore.Excludes("main.cpp"));
  CHECK_FALSE(ignore.Excludes("src/.env"));  // only at the root, as Docker reads it
  CHECK_FALSE(ignore.Excludes(".envrc"));
  CHECK_FALSE(ignore.Excludes("secrets.txt"));
}

TEST_CASE("comments, blank lines, surrounding space and a leading slash or ./ change nothing") {
  const Dockerignore ignore = Parsed("# a comment\n\n   \n  /build  \n./out/./logs/\r\n#keys\n a//b/../c \n");
  CHECK(ignore.Excludes("build"));
  CHECK(ignore.Excludes("build/x.o"));
  CHECK(ignore.Excludes("out/logs/today"));
  CHECK_FALSE(ignore.Excludes("out/other"));
  CHECK(ignore.Excludes("a/c"));
  CHECK_FALSE(ignore.Excludes("a/b"));
  CHECK_FALSE(ignore.Excludes("keys"));             // "#keys" is a comment
  CHECK_FALSE(ignore.Excludes("# a comment"));
  // # starts a comment only in the first column.
  CHECK(Parsed(" #hash").Excludes("#hash"));
}

TEST_CASE("* and ? match within one path element, ** across any number of directories") {
  const Dockerignore ignore = Parsed("*/temp*\n*/*/tmp?\n**/*.go\nlogs/**\n");
  CHECK(ignore.Excludes("somedir/temporary.txt"));
  CHECK(ignore.Excludes("somedir/temp"));
  CHECK_FALSE(ignore.Excludes("temp"));
  CHECK_FALSE(ignore.Excludes("a/b/temp"));
  CHECK(ignore.Excludes("a/b/tmpx"));
  CHECK_FALSE(ignore.Excludes("a/b/tmp"));
  CHECK_FALSE(ignore.Excludes("a/b/tmpxy"));
  CHECK(ignore.Excludes("main.go"));  // ** matches no directory too
  CHECK(ignore.Excludes("cmd/tool/main.go"));
  CHECK_FALSE(ignore.Excludes("main.gox"));
  CHECK(ignore.Excludes("logs/a/b"));
  CHECK(Parsed("a/**/b").Excludes("a/b"));
  CHECK(Parsed("a/**/b").Excludes("a/x/y/b"));
  CHECK_FALSE(Parsed("a/**/b").Excludes("a/xb"));
  CHECK(Parsed("**").Excludes("anything/at/all"));
  CHECK(Parsed("*").Excludes("top"));
}

TEST_CASE("a ! line makes an exception, and the last line that matches decides") {
  const Dockerignore readme = Parsed("*.md\n!README*.md\nREADME-secret.md\n");
  CHECK(readme.Excludes("CHANGES.md"));
  CHECK_FALSE(readme.Excludes("README.md"));
  CHECK(readme.Excludes("README-secret.md"));
  CHECK(readme.HasExceptions());

  const Dockerignore all_readmes = Parsed("*.md\nREADME-secret.md\n!README*.md\n");
  CHECK_FALSE(all_readmes.Excludes("README-secret.md"));

  // Everything out but what is named: a file kept inside an excluded directory.
  const Dockerignore only = Parsed("*\n!src\n!config/app.yaml\n");
  CHECK(only.Excludes("notes.txt"));
  CHECK_FALSE(only.Excludes("src"));
  CHECK_FALSE(only.Excludes("src/main.cpp"));
  CHECK(only.Excludes("config"));
  CHECK(only.Excludes("config/db.yaml"));
  CHECK_FALSE(only.Excludes("config/app.yaml"));
  CHECK_FALSE(Parsed(".env\n").HasExceptions());
}

TEST_CASE("classes and escapes match as Go's filepath.Match does") {
  const Dockerignore ignore = Parsed("file[0-9].txt\nx[^a-c]\nlit\\*\n[\\]]z\n");
  CHECK(ignore.Excludes("file7.txt"));
  CHECK_FALSE(ignore.Excludes("filea.txt"));
  CHECK(ignore.Excludes("xd"));
  CHECK_FALSE(ignore.Excludes("xb"));
  CHECK(ignore.Excludes("lit*"));
  CHECK_FALSE(ignore.Excludes("literal"));
  CHECK(ignore.Excludes("]z"));
  // Dots and other characters are themselves.
  CHECK_FALSE(Parsed("a.b\n").Excludes("axb"));
  CHECK(Parsed("c++\n").Excludes("c++"));
}

TEST_CASE("a malformed pattern is refused, naming its line") {
  CHECK(ParseError("ok\n!\n") == "line 2: \"!\" alone names nothing to keep");
  CHECK(ParseError("a\nb\n[abc\n") == "line 3: the pattern [abc is malformed: its [ has no closing ]");
  CHECK(ParseError("z-a[z-a]\n") == "line 1: the pattern z-a[z-a] is malformed: its range z-a runs backwards");
  CHECK(ParseError("trailing\\\n") == "line 1: the pattern trailing\\ is malformed: it ends in a lone \\");
}

TEST_CASE("a context without .dockerignore sends everything; an unreadable one is an error") {
  Dockerignore none;
  std::string err;
  CHECK(none.Load("/nonexistent-fiber-context", &err));
  CHECK(none.empty());
  CHECK_FALSE(none.Excludes(".env"));

  fiber::testing::TempDir context;
  context.write(".dockerignore/oops", "");  // a directory where the file should be
  Dockerignore unreadable;
  CHECK_FALSE(unreadable.Load(context.path(), &err));
  CHECK(err == "cannot read " + context.path() + "/.dockerignore: Is a directory");

  context.write("sub/.dockerignore", "ok\n[\n");
  Dockerignore malformed;
  CHECK_FALSE(malformed.Load(context.path() + "/sub", &err));
  CHECK(err == context.path() + "/sub/.dockerignore line 2: the pattern [ is malformed: its [ has no closing ]");
}
