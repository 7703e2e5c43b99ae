// probe runs the scripts of cases.txt through BehaviorTree.CPP's own script
// engine and prints what happened, one line per case, in the format that
// differential_test.go reads. See README.md for how to build and run it.
//
// Input lines (cases.txt):
//   # comment                      ignored
//   reset                          fresh blackboard, no enums
//   enum NAME VALUE                register a scripting enum
//   set KEY TYPE VALUE             seed a variable; TYPE is one of
//                                  int (int64_t), int32, uint8, uint64, double,
//                                  float, bool, string, empty (no value)
//   run SCRIPT                     evaluate; compare value and blackboard
//   cond SCRIPT                    evaluate, then convert the value to bool
//   dev SCRIPT                     evaluate; a documented deviation
//
// Output: for run/cond/dev lines
//   LINE <tab> OK <tab> TYPE <tab> VALUE <tab> VARS      or
//   LINE <tab> ERR <tab> - <tab> message <tab> VARS
// where VARS lists the blackboard as key=TYPE:VALUE items joined by '|',
// TYPE being the Go type btrobot uses for the same value.
#include "behaviortree_cpp/bt_factory.h"
#include "behaviortree_cpp/scripting/script_parser.hpp"

#include <iostream>
#include <sstream>

using namespace BT;

namespace
{
std::string goType(const Any& a)
{
  if(a.empty())
    return "nil";
  const auto& t = a.type();
  if(t == typeid(int64_t))
    return "int";
  if(t == typeid(int32_t))
    return "int32";
  if(t == typeid(uint8_t))
    return "uint8";
  if(t == typeid(uint64_t))
    return "uint64";
  if(t == typeid(double))
    return "float64";
  if(t == typeid(float))
    return "float32";
  if(t == typeid(bool))
    return "bool";
  if(t == typeid(std::string))
    return "string";
  return demangle(t);
}

std::string goValue(const Any& a)
{
  if(a.empty())
    return "";
  if(a.isString())
    return a.cast<std::string>();
  if(a.castedType() == typeid(double))
  {
    std::ostringstream o;
    o.precision(17);
    o << a.cast<double>();
    return o.str();
  }
  if(a.castedType() == typeid(int64_t))
    return std::to_string(*const_cast<Any&>(a).castPtr<int64_t>());
  if(a.castedType() == typeid(uint64_t))
    return std::to_string(*const_cast<Any&>(a).castPtr<uint64_t>());
  return "?";
}

std::string oneLine(std::string s)
{
  for(auto& c : s)
    if(c == '\n' || c == '\t')
      c = ' ';
  return s;
}

std::string dumpVars(const Blackboard& bb)
{
  std::vector<std::string> keys;
  for(auto k : bb.getKeys())
    keys.emplace_back(k);
  std::sort(keys.begin(), keys.end());
  std::string out;
  for(const auto& k : keys)
  {
    auto e = bb.getEntry(k);
    if(!out.empty())
      out += "|";
    out += k + "=" + goType(e->value) + ":" + goValue(e->value);
  }
  return out;
}
}  // namespace

int main()
{
  Ast::Environment env{ Blackboard::create(), std::make_shared<EnumsTable>() };
  std::string line;
  int lineno = 0;
  while(std::getline(std::cin, line))
  {
    lineno++;
    if(line.empty() || line[0] == '#')
      continue;
    auto sp = line.find(' ');
    std::string cmd = line.substr(0, sp);
    std::string rest = sp == std::string::npos ? "" : line.substr(sp + 1);
    if(cmd == "reset")
    {
      env.vars = Blackboard::create();
      env.enums = std::make_shared<EnumsTable>();
      continue;
    }
    if(cmd == "enum")
    {
      std::istringstream in(rest);
      std::string n;
      int v;
      in >> n >> v;
      (*env.enums)[n] = v;
      continue;
    }
    if(cmd == "set")
    {
      std::istringstream in(rest);
      std::string k, t, v;
      in >> k >> t;
      std::getline(in, v);
      if(!v.empty() && v[0] == ' ')
        v = v.substr(1);
      if(t == "int")
        env.vars->set(k, int64_t(std::stoll(v)));
      else if(t == "int32")
        env.vars->set(k, int32_t(std::stoi(v)));
      else if(t == "uint8")
        env.vars->set(k, uint8_t(std::stoi(v)));
      else if(t == "uint64")
        env.vars->set(k, uint64_t(std::stoull(v)));
      else if(t == "double")
        env.vars->set(k, std::stod(v));
      else if(t == "float")
        env.vars->set(k, std::stof(v));
      else if(t == "bool")
        env.vars->set(k, v == "true");
      else if(t == "string")
        env.vars->set(k, v);
      else if(t == "empty")
        env.vars->createEntry(k, PortInfo());
      continue;
    }
    std::cout << lineno << "\t";
    try
    {
      auto r = ParseScriptAndExecute(env, rest);
      if(!r)
        std::cout << "ERR\t-\t" << oneLine(r.error());
      else if(cmd == "cond")
      {
        const bool b = r.value().cast<bool>();  // may throw: then it is an error
        std::cout << "OK\tbool\t" << (b ? "true" : "false");
      }
      else
        std::cout << "OK\t" << goType(r.value()) << "\t" << oneLine(goValue(r.value()));
    }
    catch(std::exception& e)
    {
      std::cout << "ERR\t-\t" << oneLine(e.what());
    }
    std::cout << "\t" << dumpVars(*env.vars) << "\n";
  }
  return 0;
}
