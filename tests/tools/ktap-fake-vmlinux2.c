/* ktap-fake-vmlinux2.c - the other ktap_fake_dup(); see ktap-fake-vmlinux.c. */
int ktap_fake_dup2(int b);

__attribute__((noinline)) static int ktap_fake_dup(int b)
{
	return b * 2;
}

int ktap_fake_dup2(int b)
{
	return ktap_fake_dup(b);
}
