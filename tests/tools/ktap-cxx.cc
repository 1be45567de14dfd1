/*
 * ktap-cxx.cc - a C++ program for the uprobe tests (tests/harness/
 * uprobe.sh): use() takes a reference to and a pointer to a class with
 * two base classes, and a reference to an int; its symbol is mangled
 * (_Z3useR7DerivedPS_RKi), its DWARF name "use".  Built with clang -g
 * -O0 as C++ that needs no C++ runtime.
 */
extern "C" int printf(const char *, ...);

struct Other {
	int o;
};

struct Base {
	int b;
	long bb;
};

struct Derived : public Other, public Base {
	int d;
};

__attribute__((noinline)) int use(Derived &r, Derived *p, const int &k)
{
	return r.d + p->b + k;
}

int main()
{
	Derived x;
	int k = 7;

	x.o = 1;
	x.b = 2;
	x.bb = 3;
	x.d = 4;
	printf("%d\n", use(x, &x, k));
	return 0;
}
