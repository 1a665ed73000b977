// expect: Manager::make<T>(args...) builds T(args...) in the manager from copies of args: T needs a constructor taking these argument types
#include <fiber/fiber.hpp>

#include <string>

class Env {
 public:
  explicit Env(int seed) : seed_(seed) {}
  int seed() const { return seed_; }

 private:
  int seed_;
};
FIBER_CLASS(Env, &Env::seed);

int main() {
  fiber::Manager manager;
  auto env = manager.make<Env>(std::string("seed"));
  return env.call(&Env::seed).get();
}
