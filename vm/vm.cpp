// Placeholder translation unit until the interpreter lands.
namespace mlvm {}
